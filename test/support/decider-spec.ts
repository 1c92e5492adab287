import { inspect } from 'node:util';
import { expect } from 'vitest';
import type { DomainError, DomainErrorCode } from '../../src/domain/errors.js';

/**
 * An aggregate's pure rules: the state before its stream's first event, how an event changes it, and what a
 * command decides on it. `initial` and `evolve` are the aggregate's own (src/commands/aggregates.ts).
 */
export interface Decider<State, Event, Command> {
  initial: State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State): Event[];
}

export interface Given<State, Event, Command> {
  /** The state the given events fold to. */
  readonly state: State;
  when(command: Command): When<State, Event>;
}

export interface When<State, Event> {
  /**
   * The command decides exactly these events (asymmetric matchers such as expect.objectContaining may stand for
   * parts of one); answers the state the given and decided events fold to, for what the rule says of it.
   */
  then(expected: readonly Event[]): State;
  /** The command decides nothing: a safe retry, or a state it does not apply to. */
  thenNothingHappened(): void;
  /**
   * The command is refused with an `errorClass`, which `check`, if given, accepts: it answers false, or throws
   * (an expect inside it), for any other.
   */
  thenThrows<E extends Error>(errorClass: abstract new (...args: never[]) => E, check?: (error: E) => unknown): void;
}

/**
 * Given/when/then for an aggregate's decisions, after Emmett's DeciderSpecification:
 * `spec.given([...events]).when(command).then([...events])`, or `.thenThrows(DomainError, (error) => …)`.
 * The command is decided on the state the given events fold to, so each test reads as one business rule.
 */
export function deciderSpecification<State, Event, Command>(decider: Decider<State, Event, Command>) {
  const fold = (state: State, events: readonly Event[]) => events.reduce((folded, event) => decider.evolve(folded, event), state);
  return {
    given(events: readonly Event[]): Given<State, Event, Command> {
      const state = fold(decider.initial, events);
      return { state, when: (command) => outcome(decider, state, command, fold) };
    },
  };
}

function outcome<State, Event, Command>(
  decider: Decider<State, Event, Command>,
  state: State,
  command: Command,
  fold: (state: State, events: readonly Event[]) => State,
): When<State, Event> {
  const decide = () => decider.decide(command, state);
  return {
    // biome-ignore lint/suspicious/noThenProperty: given/when/then is the point (as Emmett's); a When is never awaited.
    then(expected) {
      const decided = decide();
      expect(decided).toStrictEqual(expected);
      return fold(state, decided);
    },
    thenNothingHappened() {
      expect(decide()).toStrictEqual([]);
    },
    thenThrows<E extends Error>(errorClass: abstract new (...args: never[]) => E, check?: (error: E) => unknown) {
      let decided: Event[];
      try {
        decided = decide();
      } catch (error) {
        expect(error).toBeInstanceOf(errorClass);
        const accepted = check?.(error as E);
        expect(accepted, `the ${errorClass.name} thrown is not the one expected: ${inspect(error)}`).not.toBe(false);
        return;
      }
      expect.unreachable(`expected a ${errorClass.name}, but the command decided ${inspect(decided, { depth: 4 })}`);
    },
  };
}

/** A check for `thenThrows(DomainError, …)`: the refusal's code and, when given, its details in full. */
export function refusal(code: DomainErrorCode, details?: Record<string, unknown>) {
  return (error: DomainError): void => {
    expect(error.code).toBe(code);
    if (details !== undefined) expect(error.details).toEqual(details);
  };
}
