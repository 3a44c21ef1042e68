/**
 * Helpers for code that runs the same on a synchronous backend (values) and an asynchronous one
 * (promises): a synchronous chain stays synchronous, so the folder workspace keeps returning plain
 * values while PostgreSQL's calls return promises, and the tree logic is written once.
 *
 * (Nothing here is exported as `then`: a module namespace with a `then` export is a thenable, and
 * `await import()` of it would call it.)
 */
import type { Awaitable } from './backend.js';

export function isPromise<T>(x: Awaitable<T>): x is Promise<T> {
  return typeof (x as { then?: unknown } | null | undefined)?.then === 'function';
}

/** `f(x)`, after `x` resolves when it is a promise. */
export function andThen<T, U>(x: Awaitable<T>, f: (value: T) => Awaitable<U>): Awaitable<U> {
  return isPromise(x) ? x.then(f) : f(x);
}

/** Every value; a promise of them only when one of them is a promise. */
export function all<T>(xs: readonly Awaitable<T>[]): Awaitable<T[]> {
  return xs.some((x) => isPromise(x)) ? Promise.all(xs) : (xs as T[]);
}

/** `f()`, with `onError` called on a throw or a rejection alike. */
export function attempt<T>(f: () => Awaitable<T>, onError: (err: unknown) => Awaitable<T>): Awaitable<T> {
  let r: Awaitable<T>;
  try {
    r = f();
  } catch (err) {
    return onError(err);
  }
  return isPromise(r) ? r.then(undefined, onError) : r;
}
