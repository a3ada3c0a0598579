/** Renders a page element as a full HTML document. */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export async function renderPage(
  c: Context,
  element: { toString(): string | Promise<string> },
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  return c.html(`<!DOCTYPE html>${await element.toString()}`, status);
}
