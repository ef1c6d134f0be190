/** The setup Job's entry point: migrations, indexes and streams, then exit (see runSetup). */
import path from 'node:path';
import { runSetup } from '@baas/common';
import { ensureAuthIndexes } from './adapters/indexes';

runSetup('auth', path.resolve(__dirname, '../migrations'), ensureAuthIndexes);
