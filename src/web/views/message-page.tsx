/** @jsxImportSource hono/jsx */
/** A page with one message (refusals, confirmations) that needs no session. */
import { assetUrl } from '../assets.js';

export function messagePage(title: string, text: string, link: string): string {
  const page = (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Vigil`}</title>
        <link rel="stylesheet" href={assetUrl('vigil.css')} />
      </head>
      <body>
        <main class="narrow">
          <section class="card message">
            <h1>{title}</h1>
            <p>{text}</p>
            <p>
              <a class="button" href={link}>
                Continue
              </a>
            </p>
          </section>
        </main>
      </body>
    </html>
  );
  return `<!DOCTYPE html>${page.toString()}`;
}
