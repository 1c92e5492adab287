import { describe, expect, it } from 'vitest';
import { deciderSpecification } from '../support/decider-spec.js';

/** A counter that must be opened before it counts: small enough that each failure below has one cause. */
type Event = { type: 'Opened'; data: { at: string } } | { type: 'Added'; data: { n: number } };
type Command = { type: 'Open'; at: string } | { type: 'Add'; n: number };
type State = { open: boolean; total: number };

class ClosedError extends Error {
  constructor(readonly total: number) {
    super('The counter is closed.');
  }
}

const counter = deciderSpecification<State, Event, Command>({
  initial: { open: false, total: 0 },
  evolve: (state, event) => (event.type === 'Opened' ? { ...state, open: true } : { ...state, total: state.total + event.data.n }),
  decide: (command, state) => {
    if (command.type === 'Open') return state.open ? [] : [{ type: 'Opened', data: { at: command.at } }];
    if (!state.open) throw new ClosedError(state.total);
    if (command.n < 0) throw new RangeError('Only whole numbers from 0 count.');
    return [{ type: 'Added', data: { n: command.n } }];
  },
});
const opened: Event = { type: 'Opened', data: { at: '2026-11-28T00:00:00.000Z' } };

/** What an assertion of the helper does when it does not hold: an AssertionError, naming what went wrong. */
const failure = (message: RegExp) => expect.objectContaining({ name: 'AssertionError', message: expect.stringMatching(message) });

describe('a decider specification', () => {
  it('passes when the command decides exactly the events expected, and answers the state they fold to', () => {
    expect(
      counter
        .given([opened])
        .when({ type: 'Add', n: 2 })
        .then([{ type: 'Added', data: { n: 2 } }]),
    ).toEqual({ open: true, total: 2 });
    expect(counter.given([opened, { type: 'Added', data: { n: 3 } }]).state).toEqual({ open: true, total: 3 });
    counter.given([opened]).when({ type: 'Open', at: opened.data.at }).thenNothingHappened();
  });

  it('fails when the events decided differ from those expected, by a value, by one too many or one too few', () => {
    const when = counter.given([opened]).when({ type: 'Add', n: 2 });
    expect(() => when.then([{ type: 'Added', data: { n: 3 } }])).toThrowError(failure(/expected/));
    expect(() => when.then([])).toThrowError(failure(/expected/));
    expect(() => when.then([{ type: 'Added', data: { n: 2 } }, opened])).toThrowError(failure(/expected/));
    expect(() => when.thenNothingHappened()).toThrowError(failure(/expected/));
  });

  it('passes when the command is refused with the error class expected, which the check accepts', () => {
    counter.given([]).when({ type: 'Add', n: 1 }).thenThrows(ClosedError);
    counter
      .given([])
      .when({ type: 'Add', n: 1 })
      .thenThrows(ClosedError, (error) => error.total === 0);
    counter
      .given([])
      .when({ type: 'Add', n: 1 })
      .thenThrows(ClosedError, (error) => expect(error.message).toBe('The counter is closed.'));
  });

  it('fails when another error is thrown, the check refuses it, or the command is not refused at all', () => {
    expect(() => counter.given([opened]).when({ type: 'Add', n: -1 }).thenThrows(ClosedError)).toThrowError(failure(/instance of/));
    expect(() =>
      counter
        .given([])
        .when({ type: 'Add', n: 1 })
        .thenThrows(ClosedError, (error) => error.total === 1),
    ).toThrowError(failure(/not the one expected/));
    expect(() =>
      counter
        .given([])
        .when({ type: 'Add', n: 1 })
        .thenThrows(ClosedError, (error) => expect(error.message).toBe('Another message.')),
    ).toThrowError(failure(/Another message/));
    expect(() => counter.given([opened]).when({ type: 'Add', n: 1 }).thenThrows(ClosedError)).toThrowError(
      failure(/expected a ClosedError, but the command decided/),
    );
  });
});
