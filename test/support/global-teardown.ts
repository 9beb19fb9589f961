/** Stops the stack the global setup started (KEEP_STACK=1 leaves it running for the next run). */
export default async function globalTeardown(): Promise<void> {
  if (process.env.TEST_STACK_STARTED !== '1' || process.env.KEEP_STACK === '1') return;
  const { stopServers } = await import('../../stack');
  await stopServers(undefined, process.env.TEST_STACK_ROOT);
}
