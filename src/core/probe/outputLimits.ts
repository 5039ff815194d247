// Bounds on what a probe keeps of the text a host sends besides its framed sections: what the login
// shell printed before the probe started (a noisy ~/.bashrc, a banner gone wrong), what arrived on
// stderr, and the command outputs of a report taken together. A host can print any amount of it;
// the report keeps the start of each stream, counts the rest and says so, and never grows past what
// a JSON report (one string) can hold: without bounds 95 MiB of control characters before the probe
// made `--json` and Export fail and the host look unreachable.

/** Kept of the text printed before the probe's header; more is counted and cut. */
export const PREAMBLE_KEEP_BYTES = 4096;
/** Kept of the runner's stderr (the login shell's and the script's own messages). */
export const STDERR_KEEP_BYTES = 4096;
/**
 * All command outputs of one report together, in UTF-16 code units. JSON writes a control character
 * as `\u001b`: six units for one; 64 Mi units of them stay under V8's longest string (2^29 - 24).
 */
export const REPORT_OUTPUT_BUDGET = 64 * 1024 * 1024;

/**
 * One host's probe stream (a direct probe's framed stdout, a relayed node's decoded stream), whatever
 * each command's own cap allows together (27 commands × 8 MiB × 2 streams): a real host's is well under
 * 2 MiB. Past it the probe is stopped and the report says so.
 */
export const HOST_STREAM_BUDGET = 32 * 1024 * 1024;
/**
 * Probe streams held at once in this process, over every host of a run (a fan-out's hosts in flight, a
 * relay's nodes not yet parsed): past it the host whose stream asks for more is cut, and its report says so.
 */
export const RUN_STREAM_BUDGET = 512 * 1024 * 1024;
