// Wildfire performance report, 4.1 测试千人聊天室 (../shared/seeds/003_*): 1,000
// clients join a chatroom, 100 more in it send 100 messages each at once
// (10,000), on an 8-core server; the report: 39 s, 256 a second, 32 a
// core, 32,000 broadcasts and pulls a core;
// "all stored, the watcher got most of them (a chatroom may drop by design)".
// Here every member present when a message was sent is counted: what they
// missed is a rate in the table, not a failure.
// Members join with CRJ and get the room's messages by MN and MP type 1
// (wildfire.md §14). SCALE=1 is that size; the default 0.3 scales the
// members, the senders and their messages.
// size: 330 members, 900 messages | SCALE=1: 1,100 members, 10,000 messages
import { chatroomTest } from '../lib/wildfire.js';
import { integrity } from '../lib/scenario.js';

export const plan = chatroomTest('chatroom1k', 1000, 0.3);

export const options = { thresholds: integrity };
