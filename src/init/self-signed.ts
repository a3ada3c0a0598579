/**
 * A self-signed ECDSA P-256 certificate for the HTTPS listener on first start, so a fresh box
 * never serves the API in clear on its HTTPS port. Installers replace the PEM files through
 * `api.private_key` / `api.public_key` when they have a real certificate.
 */
import { createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import {
  bitString,
  boolean,
  explicit,
  objectIdentifier,
  octetString,
  sequence,
  set,
  smallInteger,
  time,
  tlv,
  unsignedInteger,
  utf8String,
} from './der.js';

const OID_ECDSA_SHA256 = '1.2.840.10045.4.3.2';
const OID_COMMON_NAME = '2.5.4.3';
const OID_SUBJECT_ALT_NAME = '2.5.29.17';
const OID_BASIC_CONSTRAINTS = '2.5.29.19';

export interface SelfSignedOptions {
  commonName: string;
  /** DNS names and IP addresses for subjectAltName (RFC 5280 §4.2.1.6). */
  altNames: string[];
  validDays: number;
  now?: Date;
}

export interface PemPair {
  keyPem: string;
  certPem: string;
}

function ipBytes(address: string): Buffer {
  if (isIP(address) === 4) return Buffer.from(address.split('.').map(Number));
  const [head = '', tail = ''] = address.split('::');
  const parts = (s: string): number[] => (s ? s.split(':').map((h) => parseInt(h, 16)) : []);
  const left = parts(head);
  const right = parts(tail);
  const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill(0), ...right] : left;
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => {
    out.writeUInt16BE(g, i * 2);
  });
  return out;
}

function altName(name: string): Buffer {
  // GeneralName: [2] dNSName IA5String, [7] iPAddress OCTET STRING (implicit tags).
  return isIP(name) ? tlv(0x87, ipBytes(name)) : tlv(0x82, Buffer.from(name, 'ascii'));
}

function toPem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

export function createSelfSignedCertificate(options: SelfSignedOptions): PemPair {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const now = options.now ?? new Date();
  const notBefore = new Date(now.getTime() - 60_000);
  const notAfter = new Date(now.getTime() + options.validDays * 86_400_000);
  const name = sequence(set(sequence(objectIdentifier(OID_COMMON_NAME), utf8String(options.commonName))));
  const signatureAlgorithm = sequence(objectIdentifier(OID_ECDSA_SHA256));
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  const extensions = sequence(
    sequence(objectIdentifier(OID_BASIC_CONSTRAINTS), boolean(true), octetString(sequence())),
    sequence(objectIdentifier(OID_SUBJECT_ALT_NAME), octetString(sequence(...options.altNames.map(altName)))),
  );
  const spki = publicKeyDer(privateKey);
  const tbs = sequence(
    explicit(0, smallInteger(2)),
    unsignedInteger(serial),
    signatureAlgorithm,
    name,
    sequence(time(notBefore), time(notAfter)),
    name,
    spki,
    explicit(3, extensions),
  );
  const signature = sign('sha256', tbs, { key: privateKey, dsaEncoding: 'der' });
  const certificate = sequence(tbs, signatureAlgorithm, bitString(signature));
  return {
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    certPem: toPem('CERTIFICATE', certificate),
  };
}

function publicKeyDer(privateKey: KeyObject): Buffer {
  return createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
}
