/** Polls until a condition holds; fails the test with what it was waiting for. */
export async function until(
  cond: () => boolean | Promise<boolean>,
  ms: number,
  what = 'a condition',
  intervalMs = 100,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
