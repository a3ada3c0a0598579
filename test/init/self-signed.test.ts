import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createSelfSignedCertificate } from '../../src/init/self-signed.js';
import { objectIdentifier, time, unsignedInteger } from '../../src/init/der.js';

test('DER encodes OIDs, integers and times per X.690', () => {
  assert.is(objectIdentifier('1.2.840.10045.4.3.2').toString('hex'), '06082a8648ce3d040302');
  assert.is(unsignedInteger(Buffer.from([0x80])).toString('hex'), '02020080');
  assert.is(unsignedInteger(Buffer.from([0, 0, 5])).toString('hex'), '020105');
  assert.is(
    time(new Date(Date.UTC(2026, 10, 22, 1, 2, 3)))
      .toString('ascii')
      .slice(2),
    '261122010203Z',
  );
  assert.is(
    time(new Date(Date.UTC(2051, 0, 1)))
      .toString('ascii')
      .slice(2),
    '20510101000000Z',
  );
});

test('the certificate parses, is self-signed, matches its key and names localhost and loopback', () => {
  const pair = createSelfSignedCertificate({
    commonName: 'vigil-box',
    altNames: ['localhost', '127.0.0.1', '::1'],
    validDays: 3650,
  });
  const cert = new X509Certificate(pair.certPem);
  assert.is(cert.subject, 'CN=vigil-box');
  assert.is(cert.issuer, 'CN=vigil-box');
  assert.ok(cert.verify(cert.publicKey));
  assert.ok(cert.checkPrivateKey(createPrivateKey(pair.keyPem)));
  assert.is(cert.subjectAltName, 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
  assert.ok(new Date(cert.validTo).getTime() - Date.now() > 3649 * 86_400_000);
});

test('a TLS client that trusts the certificate completes a handshake with it on loopback', async () => {
  const pair = createSelfSignedCertificate({
    commonName: 'vigil',
    altNames: ['localhost', '127.0.0.1'],
    validDays: 30,
  });
  const server = createServer({ key: pair.keyPem, cert: pair.certPem }, (_req, res) => res.end('hello'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const body = await new Promise<string>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', ca: pair.certPem, servername: 'localhost' }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.end();
  });
  server.close();
  assert.is(body, 'hello');
});

test.run();
