/**
 * The backstop for native objects nobody released: when the collector finds one unreachable,
 * its release runs. Explicit release (free/destroy) stays the rule; it unregisters first.
 *
 * The held value (the release) must not reach the target, or the registry itself keeps the
 * target alive and nothing is ever collected: `once` is made in its own scope, which holds only
 * the release, never the token or the target.
 */
const finalizers = new FinalizationRegistry<() => void>((release) => {
  try {
    release();
  } catch {
    // The context may already be gone (process exit): nothing left to release.
  }
});
let live = 0;

function runOnce(release: () => void): () => void {
  let done = false;
  live++;
  return () => {
    if (done) return;
    done = true;
    live--;
    release();
  };
}

/**
 * Registers `release` to run once: through the returned function, or when `target` is
 * collected. `release` must not capture `target` or `token`.
 */
export function track(target: object, token: object, release: () => void): () => void {
  const once = runOnce(release);
  finalizers.register(target, once, token);
  return () => {
    finalizers.unregister(token);
    once();
  };
}

/** Objects registered and not yet released. */
export function liveTracked(): number {
  return live;
}
