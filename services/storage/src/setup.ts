/** The setup Job's entry point: migrations, indexes and streams, then exit (see runSetup). */
import path from 'node:path';
import { runSetup } from '@baas/common';
import { ensureStorageIndexes } from './adapters/indexes';

runSetup('storage', path.resolve(__dirname, '../migrations'), ensureStorageIndexes);
