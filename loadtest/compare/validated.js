// The compare rule's error rates as its kept validation measured them (scripts/validate-compare.js writes
// this file from its summary; test/scripts/validate-compare.test.js holds the two equal). null: not measured.
export const VALIDATED = null
