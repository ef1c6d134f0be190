import { Router } from 'express';
import { auditSource, requireAdmin } from '@baas/common';
import type { AuditLog } from '../ports';
import type { KeyStore } from '../domain/keys/key-store';
import { rotateSigningKey } from '../domain/keys/rotate-signing-key';

/** Platform admin: `POST /api/admin/signing-keys/rotate` (the gateway checked the admin token). */
export function adminSigningKeyRoutes(keys: KeyStore, audit: AuditLog): Router {
  const r = Router();
  r.post('/rotate', async (req, res) => {
    requireAdmin(req);
    res.json({
      success: true,
      data: await rotateSigningKey(keys, audit, auditSource(req)),
      message: 'Signing key rotated',
    });
  });
  return r;
}
