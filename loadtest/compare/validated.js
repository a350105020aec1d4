// The compare rule's error rates as its kept validation measured them (scripts/validate-compare.js
// writes this file from its summary; test/scripts/validate-compare.test.js holds the two equal).
export const VALIDATED = {
  folder: 'reports/reference/compare-validation',
  machine: 'AMD EPYC, 2 cores',
  falseAlarms: {
    pairs: 10,
    figures: 360,
    alarms: 5,
    share: 0.013888888888888888,
    heldOut: {
      fittedOn: 5,
      pairs: 5,
      figures: 180,
      alarms: 6,
      share: 0.03333333333333333
    },
    serverHeldOut: {
      pairs: 10,
      figures: 360,
      alarms: 14,
      share: 0.03888888888888889
    }
  },
  power: {
    pairs: 10,
    runs: 80,
    detected: 21,
    share: 0.2625,
    reached: {
      runs: 33,
      detected: 20,
      share: 0.6060606060606061
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
      machine: 34,
      machineShare: 0.3148148148148148,
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
      disturbed: 15,
      disturbedShare: 0.4166666666666667,
      told: true
    }
  ]
}
