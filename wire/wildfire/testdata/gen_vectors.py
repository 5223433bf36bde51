"""Regenerates vectors.txt, the byte vectors wire/wildfire's tests hold the Go
code to. Run from this folder:

    python3 gen_vectors.py ../../../../shared/protocols/reference > vectors.txt

It needs `cryptography` (pip install cryptography) and, for the PB_* lines,
`protobuf` plus protoc on PATH. Every crypto, MQTT and protobuf byte comes from
the reference helpers in wildfire_reference.py (wf_encrypt, wf_decrypt,
parse_im_token, mqtt_connect, mqtt_publish_qos1, pb_message, pb_pull_request,
admin_headers' sign formula) with the clock pinned: hours_now() is replaced by
a constant, so each line below names the hour it used. DES (§3.2) is not in the
reference script; it is done here with cryptography's TripleDES given one
key three times (K1=K2=K3, which is single DES), CBC, PKCS#5, and is checked against
the wildfire.md §3.5 vector before anything is printed. The PUBACK line is
assembled from the reference primitives as §5.4 describes it (0x40, remaining
length, packet id, code byte, wf_encrypt of messageUid‖timestamp big-endian).
"""
import base64, hashlib, os, struct, subprocess, sys, tempfile

ref_dir = sys.argv[1] if len(sys.argv) > 1 else '../../../../shared/protocols/reference'
sys.path.insert(0, ref_dir)
import wildfire_reference as wf
from cryptography.hazmat.primitives.ciphers import Cipher, modes
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.decrepit.ciphers.algorithms import TripleDES

HOUR = 70000                      # §3.5's H
wf.hours_now = lambda: HOUR       # pin the clock (wf_encrypt/wf_decrypt read it)

SECRET = '1b4e28ba-2fa1-11d2-883f-0016d3cca427'       # §3.5's session secret
DB_SECRET = '9f8c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f'
out = []
def emit(name, value):
    out.append(f'{name} {value}')

def des_encrypt(text):
    p = padding.PKCS7(64).padder()
    d = p.update(text.encode()) + p.finalize()
    e = Cipher(TripleDES(b'abcdefgh' * 3), modes.CBC(bytes(range(1, 9)))).encryptor()
    return base64.b64encode(e.update(d) + e.finalize()).decode()

assert des_encrypt('testim|1700000000000|u1') == 'hN0AF2XX6+qhlgoS479jRcE42/1VsHWY'

emit('HOUR', HOUR)
emit('HOUR_PREFIX', struct.pack('<I', HOUR).hex())
emit('SECRET', SECRET)
# wf_encrypt(b'hello', '') and with SECRET: §3.5's own two vectors
emit('AES_ROOT_HELLO', wf.wf_encrypt(b'hello', '').hex())
secret_hello = wf.wf_encrypt(b'hello', SECRET)
emit('AES_SECRET_HELLO', secret_hello.hex())
# multi-block plaintexts, 0..255 byte values
plain40 = bytes(range(40))
emit('PLAIN40', plain40.hex())
emit('AES_SECRET_PLAIN40', wf.wf_encrypt(plain40, SECRET).hex())
plain12 = bytes(range(200, 212))     # 4 + 12 = 16: a whole extra padding block
emit('PLAIN12', plain12.hex())
emit('AES_ROOT_PLAIN12', wf.wf_encrypt(plain12, '').hex())
# encrypt.use_aes256: KEY_LEN = 32 (root = all 32 bytes, secret's first 32 chars)
wf.KEY_LEN = 32
emit('AES256_ROOT_HELLO', wf.wf_encrypt(b'hello', '').hex())
emit('AES256_SECRET_PLAIN40', wf.wf_encrypt(plain40, SECRET).hex())
wf.KEY_LEN = 16
# the same ciphertext at HOUR+30 must fail wf_decrypt's ±24 h check
wf.hours_now = lambda: HOUR + 30
try:
    wf.wf_decrypt(secret_hello, SECRET)
    raise SystemExit('expected a time error')
except ValueError as e:
    assert str(e) == 'time inconsistent', e
wf.hours_now = lambda: HOUR

# DES token (§3.2): token.key|issue_ms|userId
des_token = des_encrypt('testim|1700000000000|u1')
emit('DES_TOKEN_U1', des_token)
des_token2 = des_encrypt('mykey|1799999999999|user-0042')
emit('DES_TOKEN_USER42', des_token2)

# IM token (§3.3): base64(wfAES_root(hour4 ‖ desToken|secret|dbSecret))
im_token = base64.b64encode(wf.wf_encrypt(f'{des_token}|{SECRET}|{DB_SECRET}'.encode(), '')).decode()
assert wf.parse_im_token(im_token) == (des_token, SECRET, DB_SECRET)
emit('DB_SECRET', DB_SECRET)
emit('IM_TOKEN', im_token)

# CONNECT (§5.3): mqtt_connect(clientId, userId, desToken, secret, keepalive 60, level 4)
pwd = wf.wf_encrypt(des_token.encode(), SECRET)
emit('CONNECT_PASSWORD', pwd.hex())
emit('CONNECT_C1_U1', wf.mqtt_connect('c1', 'u1', des_token, SECRET, keepalive=60).hex())

# the §5.5 minimal text message, a pull request, and PUBLISH QoS 1 'MS' packet id 7
msg = wf.pb_message(0, 'u2', 'u1', 'hi')
emit('PB_MESSAGE_HI', msg.hex())
emit('PB_PULL_REQUEST', wf.pb_pull_request(588578821752520705, 0).hex())
emit('PUBLISH_MS_7', wf.mqtt_publish_qos1('MS', 7, msg, SECRET).hex())

# PUBACK (§5.4, §14): 0x40, remLen, packet id 7, code 0, wfAES(secret)(hour4 ‖ uid BE ‖ ts BE)
uid, ts = 588578821752520705, 1795392252609
enc = wf.wf_encrypt(struct.pack('>qq', uid, ts), SECRET)
body = struct.pack('>H', 7) + bytes([0]) + enc
emit('PUBACK_MS_7', (bytes([0x40]) + wf._vlen(len(body)) + body).hex())
emit('PUBACK_MS_UID', uid)
emit('PUBACK_MS_TS', ts)

# admin signature (§4): sha1(nonce|secret|timestamp), as admin_headers computes it
nonce, stamp = '76616', '1558350862502'
emit('ADMIN_SIGN_76616', hashlib.sha1(f'{nonce}|123456|{stamp}'.encode()).hexdigest())
emit('ADMIN_SIGN_ABC', hashlib.sha1('abc|s3cr3t|1700000000000'.encode()).hexdigest())

# Protobuf, encoded by python protobuf from the reference .proto itself
try:
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    with tempfile.TemporaryDirectory() as tmp:
        ds = os.path.join(tmp, 'd.pb')
        subprocess.run(['protoc', '-I', ref_dir, '--descriptor_set_out=' + ds,
                        'wfcmessage_community.proto'], check=True)
        fds = descriptor_pb2.FileDescriptorSet.FromString(open(ds, 'rb').read())
    pool = descriptor_pool.DescriptorPool()
    for f in fds.file:
        pool.Add(f)
    def cls(name):
        return message_factory.GetMessageClass(pool.FindMessageTypeByName(name))
    M = cls('Message')()
    M.conversation.type, M.conversation.target, M.conversation.line = 1, 'g1', 0
    M.from_user = 'u1'
    c = M.content
    c.type, c.searchable_content, c.push_content, c.content = 1, 'hello 世界', 'push', 'ct'
    c.data, c.mediaType, c.remoteMediaUrl, c.persist_flag = b'\x00\x01\xff', 0, 'http://x/y', 3
    c.expire_duration, c.mentioned_type = 0, 2
    c.mentioned_target.extend(['u2', 'u3'])
    c.extra, c.push_data = '{"k":1}', 'pd'
    M.message_id, M.server_timestamp, M.to_user = 588578821752520705, 1795392252609, 'u9'
    M.to.extend(['u4', 'u5'])
    emit('PB_MESSAGE_FULL', M.SerializeToString().hex())
    R = cls('PullMessageResult')()
    R.message.add().CopyFrom(M)
    R.current, R.head = 588578821752520705, 588578821752520706
    emit('PB_PULL_RESULT', R.SerializeToString().hex())
    A = cls('ConnectAckPayload')()
    A.msg_head, A.friend_head, A.friend_rq_head, A.setting_head = 0, 0, 0, 0
    A.server_time = 1795392252609
    emit('PB_CONNECT_ACK', A.SerializeToString().hex())
    N = cls('NotifyMessage')()
    N.type, N.head = 0, 588578821752520705
    emit('PB_NOTIFY', N.SerializeToString().hex())
    G = cls('CreateGroupRequest')()
    G.group.group_info.target_id, G.group.group_info.name = 'g1', 'G1'
    G.group.group_info.owner, G.group.group_info.type = 'u1', 2
    m1 = G.group.members.add(); m1.member_id, m1.type = 'u1', 2
    m2 = G.group.members.add(); m2.member_id, m2.type = 'u2', 0
    G.to_line.append(0)
    emit('PB_CREATE_GROUP', G.SerializeToString().hex())
    W = cls('IMHttpWrapper')()
    W.token, W.client_id, W.request, W.data = des_token, 'c1', 'ROUTE', b'\x10\x07'
    emit('PB_HTTP_WRAPPER', W.SerializeToString().hex())
    I = cls('IDBuf')()
    I.id = 'chatroom-1'
    emit('PB_IDBUF', I.SerializeToString().hex())
except ImportError:
    print('# python protobuf missing: PB_MESSAGE_FULL and later lines not generated', file=sys.stderr)

print('# Wildfire IM wire vectors for wire/wildfire tests. Generated by gen_vectors.py')
print('# (this folder) from ../shared/protocols/reference/wildfire_reference.py with')
print(f'# hours_now() pinned to {HOUR}; see the script for the call behind each line.')
print('# Format: NAME VALUE, hex unless the name says otherwise.')
for line in out:
    print(line)
