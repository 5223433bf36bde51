package node

import "fmt"

// Ports of the test cluster, all on 127.0.0.1 and below the kernel's
// ephemeral range; none is a port of the stack's. etcd answers only the
// API server's client certificate.
const (
	etcdPort       = 12379
	etcdPeerPort   = 12380
	apiserverPort  = 16443
	kubeletPort    = 11250
	healthzPort    = 11248
	controllerPort = 11257
	schedulerPort  = 11259
	serviceCIDR    = "10.96.0.0/16"
	serviceIP      = "10.96.0.1"
	// NodeName is the node: the kubelet takes loopback only as a
	// hostname (it refuses a loopback --node-ip), so the node is named by
	// its address.
	NodeName = "127.0.0.1"
	// PauseImage is the sandbox image, built from this program (pause).
	PauseImage = "imbench.local/pause:1"
)

// kernelDefaults are the /proc/sys values the kubelet sets when they
// differ (component-helpers' node/util/sysctl). In the node's private
// mount namespace a file holding each value is bound over its entry, so
// the kubelet finds them as it wants them and the host keeps its own.
var kernelDefaults = map[string]string{
	"vm/overcommit_memory":      "1",
	"vm/panic_on_oom":           "0",
	"kernel/panic":              "10",
	"kernel/panic_on_oops":      "1",
	"kernel/keys/root_maxkeys":  "1000000",
	"kernel/keys/root_maxbytes": "25000000",
}

// containerdConfig is containerd's configuration: everything under the
// cluster's folder, the CRI plugin with the restricted OOM score (root
// here lacks CAP_SYS_RESOURCE), the pinned pause image and a loopback-only
// network.
func (c Cluster) containerdConfig() string {
	d := c.Dir
	return fmt.Sprintf(`version = 3
root = %[1]q
state = %[2]q
disabled_plugins = ["io.containerd.internal.v1.tracing", "io.containerd.tracing.processor.v1.otlp"]
[grpc]
  address = %[3]q
[plugins.'io.containerd.internal.v1.opt']
  path = %[4]q
[plugins.'io.containerd.nri.v1.nri']
  disable = true
[plugins.'io.containerd.cri.v1.images']
  snapshotter = "overlayfs"
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = %[5]q
[plugins.'io.containerd.cri.v1.runtime']
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  cdi_spec_dirs = []
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = ["/usr/lib/cni"]
    conf_dir = %[6]q
  [plugins.'io.containerd.cri.v1.runtime'.containerd]
    default_runtime_name = "runc"
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
        BinaryName = "/usr/sbin/runc"
        Root = %[7]q
        SystemdCgroup = false
`, d+"/containerd/root", d+"/containerd/state", c.socket(), d+"/containerd/opt", PauseImage, d+"/cni", d+"/containerd/runc")
}

// cniConfig is a loopback-only network: enough for the node to be Ready;
// the pods use the host's network.
const cniConfig = `{"cniVersion": "1.0.0", "name": "imbench-loopback", "plugins": [{"type": "loopback"}]}
`

// kubeletConfig keeps the kubelet to the cluster's folder and cgroup,
// off the host's firewall, and lets it run on cgroup v1.
func (c Cluster) kubeletConfig() string {
	d := c.Dir
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /%[1]s
cgroupsPerQOS: true
enforceNodeAllocatable: ["pods"]
containerRuntimeEndpoint: unix://%[2]s
address: 127.0.0.1
port: %[3]d
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: %[4]d
authentication:
  x509: {clientCAFile: %[5]s/pki/ca.crt}
  anonymous: {enabled: false}
  webhook: {enabled: false}
authorization: {mode: AlwaysAllow}
staticPodPath: ""
resolvConf: /etc/resolv.conf
protectKernelDefaults: false
failSwapOn: false
oomScoreAdj: 0
makeIPTablesUtilChains: false
evictionHard: {memory.available: "0%%", nodefs.available: "0%%", nodefs.inodesFree: "0%%", imagefs.available: "0%%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
volumePluginDir: %[5]s/kubelet-plugins
podLogsDir: %[5]s/pod-logs
`, cgroupName, c.socket(), kubeletPort, healthzPort, d)
}

func (c Cluster) socket() string { return c.Dir + "/run/containerd.sock" }
