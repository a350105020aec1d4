// The compare rule's error rates as its kept validation measured them (scripts/validate-compare.js
// writes this file from its summary; test/scripts/validate-compare.test.js holds the two equal).
export const VALIDATED = {
  folder: 'reports/reference/compare-validation',
  machine: 'AMD EPYC, 2 cores',
  falseAlarms: {
    pairs: 10,
    figures: 360,
    alarms: 78,
    share: 0.21666666666666667
  },
  power: {
    pairs: 10,
    runs: 80,
    detected: 46,
    share: 0.575
  },
  machine_pairs: [
    {
      name: 'taskset -c 0',
      pairs: 3,
      figures: 108,
      machine: 49,
      machineShare: 0.4537037037037037,
      told: true
    },
    {
      name: 'beside a CPU hog',
      pairs: 1,
      figures: 36,
      machine: 21,
      machineShare: 0.5833333333333334,
      told: true
    }
  ]
}
