import { spawnSync } from 'node:child_process';

/**
 * Some tests need the full MongoDB language (joins, $facet) that FerretDB lacks. They use
 * MONGO_FULL_URL when set, otherwise a MongoDB container via testcontainers when a Docker engine
 * answers; with neither they are skipped, and say so on the console.
 */
export const MONGO_FULL_URL = process.env.MONGO_FULL_URL;
export const DOCKER_AVAILABLE =
  !MONGO_FULL_URL && spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 5000 }).status === 0;
export const FULL_MONGO_AVAILABLE = Boolean(MONGO_FULL_URL) || DOCKER_AVAILABLE;

if (!FULL_MONGO_AVAILABLE) {
  console.warn(
    'SKIPPED: tests needing a real MongoDB (joins, $facet) did not run: set MONGO_FULL_URL to a MongoDB >= 5.0, or run with a Docker engine for testcontainers.',
  );
}

let stop: (() => Promise<unknown>) | undefined;

/** The URL of a real MongoDB for this test file (starting a container when needed). */
export async function fullMongoUrl(): Promise<string> {
  if (MONGO_FULL_URL) return MONGO_FULL_URL;
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer('mongo:7')
    .withExposedPorts(27017)
    .withWaitStrategy(Wait.forListeningPorts())
    .start();
  stop = () => container.stop();
  return `mongodb://${container.getHost()}:${container.getMappedPort(27017)}`;
}

export async function stopFullMongo(): Promise<void> {
  await stop?.();
}
