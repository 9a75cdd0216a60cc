'use strict';
// The one allocator of the ids the face hands the binding's table of pending operations (a
// `NativeClient`'s `cancel(id)` reaches the entry by it): tool-call ids (`lib/tools.cjs`) and
// OAuth flow ids (`lib/client/auth.cjs`). u32, never 0, and never an id still pending anywhere
// in the process, so a cancel or a settle can only reach the operation it was given for.

const MAX = 0xffffffff;
const pending = new Set();
let next = 1;

/** A fresh id, held until `release(id)`. */
function allocate() {
  for (;;) {
    const id = next;
    next = next === MAX ? 1 : next + 1;
    if (!pending.has(id)) {
      pending.add(id);
      return id;
    }
  }
}

/** The operation of `id` is over: the id may be handed out again. */
function release(id) {
  pending.delete(id);
}

/** Test-only: where the next id is looked for (drives the allocator to a boundary). */
function __setNextForTest(id) {
  next = id >>> 0 || 1;
}

/** Test-only: whether `id` is held. */
function __isPendingForTest(id) {
  return pending.has(id);
}

module.exports = { allocate, release, __setNextForTest, __isPendingForTest };
