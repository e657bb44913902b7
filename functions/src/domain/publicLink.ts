import { z } from 'zod';

/** Spec §8: lowercase Latin letters, digits, hyphens; we also bound the length and forbid edge or double hyphens. */
export const slugSchema = () =>
  z
    .string()
    .min(3)
    .max(40)
    .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'use lowercase Latin letters, digits and single hyphens, not at either end');

export const publicSlugPath = (slug: string) => `publicSlugs/${slug}`;
export const publicLinkUrl = (base: string, slug: string) => `${base}/link/${slug}`;
