// What scenarios share besides their plans. A scenario exports its plan
// (im.workload or im.integration), its options and, if it wants its own
// outputs, handleSummary(summary); imbench runs the rest: setup, logins,
// sending (or holding), late logins, drain, reconciliation, the summary:
//
//   export const plan = im.workload({ ... });
//   export const options = { thresholds: integrity };

// integrity fails the run (exit 99) on any lost or corrupted delivery.
export const integrity = { lost: ['count==0'], corrupted: ['count==0'] };
