// Preloaded into a server process (NODE_OPTIONS=--import) by a test that opens a data directory written on a known
// day: the process's wall clock starts at NATURE_TEST_NOW and runs on from there, so what the fixture stored with an
// expiry (24-hour idempotency answers, 7-day assessments) is as fresh on every day the test runs as on the day it was
// written. Durations (performance.now) are untouched.
const start = process.env.NATURE_TEST_NOW;
if (start === undefined || Number.isNaN(Date.parse(start))) throw new Error('shifted-clock: set NATURE_TEST_NOW to an ISO 8601 instant');
const RealDate = Date;
const offset = RealDate.parse(start) - RealDate.now();

class ShiftedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + offset);
    else super(...args);
  }
  static now() {
    return RealDate.now() + offset;
  }
  // A Date made before the swap, or by a library that kept the original, is still a Date.
  static [Symbol.hasInstance](value) {
    return value instanceof RealDate;
  }
}
globalThis.Date = ShiftedDate;
