// Mocha's spec reporter plus the plain totals line that CI reads: "N passed, N failed".
const Mocha = require('mocha');

class SpecWithTotals extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      process.stdout.write(`${this.stats.passes} passed, ${this.stats.failures} failed\n`);
    });
  }
}

module.exports = SpecWithTotals;
