/**
 * The page's one stylesheet and one script, served as files (the CSP forbids inline code) under
 * a content-hash query, so browsers may cache them for a year and still see a new build at once.
 * Read once, lazily (no I/O when the app is built).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Hono } from 'hono';
import type { WebEnv } from './web-deps.js';

const TYPES: Record<string, string> = {
  'vigil.css': 'text/css; charset=utf-8',
  'vigil.js': 'text/javascript; charset=utf-8',
};

interface Asset {
  readonly body: string;
  readonly hash: string;
}

const cache = new Map<string, Asset>();

function load(name: string): Asset {
  let asset = cache.get(name);
  if (!asset) {
    const body = readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8');
    asset = { body, hash: createHash('sha256').update(body).digest('hex').slice(0, 12) };
    cache.set(name, asset);
  }
  return asset;
}

export function assetUrl(name: keyof typeof TYPES & string): string {
  return `/assets/${name}?v=${load(name).hash}`;
}

export function registerAssets(app: Hono<WebEnv>): void {
  // Browsers ask for it on every first visit; no icon rather than a logged 404.
  app.get('/favicon.ico', (c) => c.body(null, 204));
  app.get('/assets/:name', (c) => {
    const name = c.req.param('name');
    const type = TYPES[name];
    if (!type) return c.text('Not Found', 404);
    const asset = load(name);
    c.header('Content-Type', type);
    c.header('Cache-Control', 'public, max-age=31536000, immutable');
    c.header('ETag', `"${asset.hash}"`);
    if (c.req.header('If-None-Match') === `"${asset.hash}"`) return c.body(null, 304);
    return c.body(asset.body);
  });
}
