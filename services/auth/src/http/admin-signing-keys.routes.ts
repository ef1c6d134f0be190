import { Router } from 'express';
import { requireAdmin } from '@baas/common';
import type { KeyStore } from '../domain/keys/key-store';
import { rotateSigningKey } from '../domain/keys/rotate-signing-key';

/** Platform admin: `POST /api/admin/signing-keys/rotate` (the gateway checked the admin token). */
export function adminSigningKeyRoutes(keys: KeyStore): Router {
  const r = Router();
  r.post('/rotate', async (req, res) => {
    requireAdmin(req);
    res.json({ success: true, data: await rotateSigningKey(keys), message: 'Signing key rotated' });
  });
  return r;
}
