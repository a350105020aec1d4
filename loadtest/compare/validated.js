// The compare rule's error rates as its kept validation measured them (scripts/validate-compare.js
// writes this file from its summary; test/scripts/validate-compare.test.js holds the two equal).
export const VALIDATED = {
  folder: 'reports/reference/compare-validation',
  machine: 'AMD EPYC, 2 cores',
  falseAlarms: {
    pairs: 10,
    figures: 360,
    alarms: 1,
    share: 0.002777777777777778,
    heldOut: {
      fittedOn: 5,
      pairs: 5,
      figures: 180,
      alarms: 4,
      share: 0.022222222222222223
    },
    serverHeldOut: {
      pairs: 10,
      figures: 360,
      alarms: 8,
      share: 0.022222222222222223
    }
  },
  power: {
    pairs: 10,
    runs: 80,
    detected: 19,
    share: 0.2375,
    reached: {
      runs: 33,
      detected: 19,
      share: 0.5757575757575758
    }
  },
  setting: {
    pairs: 10,
    runs: 80,
    detected: 28,
    share: 0.35,
    reached: {
      runs: 27,
      detected: 26,
      share: 0.9629629629629629
    }
  },
  machine_pairs: [
    {
      name: 'taskset -c 0',
      pairs: 3,
      figures: 108,
      machine: 30,
      machineShare: 0.2777777777777778,
      disturbed: 2,
      disturbedShare: 0.018518518518518517,
      told: true
    },
    {
      name: 'beside a CPU hog',
      pairs: 1,
      figures: 36,
      machine: 0,
      machineShare: 0,
      disturbed: 13,
      disturbedShare: 0.3611111111111111,
      told: true
    }
  ]
}
