/**
 * Paths the running system cannot be made to take here, each with its reason (issue 21: at most
 * five). An excused path is still run; it only does not count against the baseline when undriven.
 */
export const EXCUSED: Record<string, string> = {};
