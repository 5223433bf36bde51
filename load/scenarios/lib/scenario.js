// What scenarios share besides their plans. A scenario exports its plan
// (im.workload or im.integration), its options and, if it wants its own
// outputs, handleSummary(summary); imbench runs the rest: setup, logins,
// sending (or holding), late logins, drain, reconciliation, the summary:
//
//   export const plan = im.workload({ ... });
//   export const options = { thresholds: integrity };

// integrity fails the run (exit 99) on any lost, late, unchecked or
// corrupted delivery (late: the server holds it, read back after the
// drain, but did not deliver it in time; unchecked: the server did not
// answer that read) and on any send the server did not answer within the
// timeout. A scenario that expects some relaxes its own:
// { ...integrity, unanswered: ['count<=10'] }.
export const integrity = { lost: ['count==0'], late: ['count==0'], unchecked: ['count==0'], corrupted: ['count==0'], unanswered: ['count==0'] };

// inOrder fails the run on disorder or a duplicate among the deliveries
// of classes whose senders waited for each acknowledgement (1 in flight);
// with more in flight, they are reported per class, not a failure.
export const inOrder = { 'out_of_order{inflight:1}': ['count==0'], 'duplicates{inflight:1}': ['count==0'] };
