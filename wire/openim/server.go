package openim

// MsgStatusSendSuccess is MsgData.status of a stored message (openim.md §2,
// field 17: 1 sending, 2 success, 3 failed, 4 deleted, 5 filtered).
const MsgStatusSendSuccess int32 = 2

// GroupTypeWorking is the only group type create_group accepts in v3
// (openim.md §3: groupType must be 2, else 1001).
const GroupTypeWorking = 2
