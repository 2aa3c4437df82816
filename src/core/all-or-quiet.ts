// Waiting for the sources' builds without letting one that never answers hold the catalog back;
// apart from toolkit.ts as it knows nothing of sources, only of promises and a clock.

/**
 * Waits until every build ended, or until `quietMs` passed with none ending. The clock starts
 * at the first build that ends and again at each one after it: many healthy sources starting
 * at once on a busy machine are all waited for, however long the first of them takes, and a
 * source that never answers does not hold back the ones that are up. Resolves with how many
 * were still under way.
 */
export function allOrQuiet(builds: Promise<void>[], quietMs: number): Promise<number> {
  let left = builds.length;
  if (left === 0) return Promise.resolve(0);
  return new Promise((resolve) => {
    let done = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const end = (n: number) => {
      done = true;
      resolve(n);
    };
    for (const b of builds)
      void b.finally(() => {
        left--;
        if (done) return;
        clearTimeout(timer);
        if (left === 0) end(0);
        else timer = setTimeout(() => end(left), quietMs);
      });
  });
}
