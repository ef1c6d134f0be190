import { z } from 'zod';
import type { ProjectId } from '@baas/common';

/** An origin is scheme://host[:port] exactly, as a browser sends it. */
const origin = z
  .string()
  .max(2048)
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === s;
    } catch {
      return false;
    }
  }, 'must be an origin such as https://app.example.com (scheme, host and optional port, no path)');

const limitsSchema = z
  .object({
    storageBytes: z.number().int().min(0).optional(),
    documents: z.number().int().min(0).optional(),
    mailMonthly: z.number().int().min(0).optional(),
  })
  .strict();

export const settingsPatchSchema = z
  .object({
    publicSignups: z.boolean().optional(),
    allowedOrigins: z.array(origin).max(100).optional(),
    requireEmailVerification: z.boolean().optional(),
    limits: limitsSchema.optional(),
  })
  .strict();

export type SettingsPatch = z.infer<typeof settingsPatchSchema>;
export type Limits = z.infer<typeof limitsSchema>;

/** Stored settings: only what the operator set; defaults are applied when read. */
export interface StoredSettings {
  publicSignups?: boolean;
  allowedOrigins?: string[];
  requireEmailVerification?: boolean;
  limits?: Limits;
}

export interface EffectiveSettings {
  publicSignups: boolean;
  allowedOrigins: string[];
  requireEmailVerification: boolean;
  limits: { storageBytes: number; documents: number; mailMonthly: number };
}

export interface SettingsDefaults {
  storageBytes: number;
  documents: number;
  mailMonthly: number;
}

export function effectiveSettings(s: StoredSettings, d: SettingsDefaults): EffectiveSettings {
  return {
    publicSignups: s.publicSignups ?? true,
    allowedOrigins: s.allowedOrigins ?? [],
    requireEmailVerification: s.requireEmailVerification ?? false,
    limits: {
      storageBytes: s.limits?.storageBytes ?? d.storageBytes,
      documents: s.limits?.documents ?? d.documents,
      mailMonthly: s.limits?.mailMonthly ?? d.mailMonthly,
    },
  };
}

export function mergeSettings(current: StoredSettings, patch: SettingsPatch): StoredSettings {
  const merged: StoredSettings = { ...current, ...patch };
  if (patch.limits) merged.limits = { ...current.limits, ...patch.limits };
  return merged;
}

export interface StoredKey {
  hash: string;
  prefix: string;
  createdAt: Date;
}

export interface Project {
  id: ProjectId;
  name: string;
  settings: StoredSettings;
  keys: { publishable: StoredKey; secret: StoredKey };
  createdAt: Date;
  updatedAt: Date;
}

export const projectNameSchema = z.string().trim().min(1).max(100);
