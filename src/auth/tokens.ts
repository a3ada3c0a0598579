/**
 * Access tokens of the management API: JWT, HS256 only, signed with the CURRENT
 * `api.api_jwt_secret` (management API §Authentication 8). The secret is read through a getter on
 * every issue and every verification, so changing it through PUT /api/settings invalidates every
 * token issued before at once. The contract leaves algorithm and claims open (§Authentication 9):
 * Vigil uses `sub`, `scopes` (string[]), `iat`, `exp` and, on user tokens, `epoch`: the user's token
 * epoch at issue (docs/security.md "Token invalidation"); a password change or the deletion of the
 * user raises the stored epoch, so every token issued before no longer matches. Every token issued
 * here carries a random `jti`, the id a logout revokes it by (docs/security.md "Logout"); a user
 * token without one is refused, so every user token can be ended.
 */
import { randomBytes } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import type { Clock } from '../core/clock.js';
import { VigilError } from '../core/errors.js';

/** Subject of tokens made by the `vigil token` CLI: no user record behind it. */
export const INSTALLER_SUBJECT = 'installer';

/** Below this the secret is not usable (the settings schema demands exactly 64 characters). */
const MIN_SECRET_LENGTH = 32;
/** A bearer token longer than this is refused before any parsing. */
export const MAX_TOKEN_LENGTH = 8192;
/**
 * How far in the future `iat` may lie (clock skew between `vigil token` and the gateway, an NTP
 * step backwards). Every token is minted on this box, so a larger gap means a forged or replayed
 * token from another clock (docs/api.md "Authentication and tokens").
 */
export const MAX_IAT_SKEW_S = 60;
/** The ids issued here are 22 characters; the revocation table takes at most 64. */
const MAX_JTI_LENGTH = 64;

export interface TokenClaims {
  readonly sub: string;
  readonly scopes: readonly string[];
  readonly iat: number;
  readonly exp: number;
  /** The user's token epoch at issue; 0 when the token carries none. */
  readonly epoch: number;
  /** The token's id (revocation by logout); null only on installer tokens made before ids existed. */
  readonly jti: string | null;
}

export interface IssueTokenInput {
  readonly sub: string;
  readonly scopes: readonly string[];
  /** Lifetime in minutes (a user's token_time). */
  readonly minutes: number;
  /** The user's current token epoch (user tokens); omitted for installer tokens. */
  readonly epoch?: number;
  /** Milliseconds since the epoch; the service's clock when omitted. */
  readonly now?: number;
}

export interface IssuedToken {
  readonly token: string;
  readonly expiresAt: Date;
}

export interface TokenServiceOptions {
  /** Returns the current `api.api_jwt_secret`. */
  readonly secret: () => string;
  readonly clock: Clock;
}

export type Subject = { kind: 'user'; userId: number } | { kind: 'installer' };

export function userSubject(userId: number): string {
  return `user:${userId}`;
}

/** `user:<id>` (positive integer without leading zeros) or `installer`; anything else is null. */
export function parseSubject(sub: string): Subject | null {
  if (sub === INSTALLER_SUBJECT) return { kind: 'installer' };
  const match = /^user:([1-9][0-9]{0,14})$/.exec(sub);
  return match ? { kind: 'user', userId: Number(match[1]) } : null;
}

function authFailed(reason: string, cause?: unknown): VigilError {
  return new VigilError('AUTH_FAILED', reason, [], cause === undefined ? undefined : { cause });
}

export class TokenService {
  private readonly secret: () => string;
  private readonly clock: Clock;

  constructor(options: TokenServiceOptions) {
    this.secret = options.secret;
    this.clock = options.clock;
  }

  private key(): Uint8Array {
    const secret = this.secret();
    // An empty secret exists until the first start fills it; never sign or accept with it.
    if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) throw authFailed('api_jwt_secret is not set');
    return new TextEncoder().encode(secret);
  }

  async issueToken(input: IssueTokenInput): Promise<IssuedToken> {
    if (!Number.isInteger(input.minutes) || input.minutes < 1)
      throw authFailed('token lifetime must be a positive number of minutes');
    if (!parseSubject(input.sub)) throw authFailed(`unsupported token subject ${input.sub}`);
    const now = input.now ?? this.clock.now();
    const iat = Math.floor(now / 1000);
    const exp = iat + input.minutes * 60;
    const epoch = input.epoch ?? 0;
    if (!Number.isSafeInteger(epoch) || epoch < 0) throw authFailed('token epoch must be a non-negative integer');
    const token = await new SignJWT(epoch > 0 ? { scopes: [...input.scopes], epoch } : { scopes: [...input.scopes] })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(input.sub)
      .setJti(randomBytes(16).toString('base64url'))
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(this.key());
    return { token, expiresAt: new Date(exp * 1000) };
  }

  /** The token's claims, or VigilError('AUTH_FAILED') for anything not issued by us and still valid. */
  async verifyToken(token: string): Promise<TokenClaims> {
    if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH)
      throw authFailed('malformed token');
    const key = this.key();
    let payload: Record<string, unknown>;
    try {
      // algorithms pins HS256: `alg: none`, HS384/HS512 and every asymmetric header are refused.
      const result = await jwtVerify(token, key, {
        algorithms: ['HS256'],
        currentDate: new Date(this.clock.now()),
        requiredClaims: ['sub', 'iat', 'exp'],
      });
      payload = result.payload as Record<string, unknown>;
    } catch (err) {
      const reason = err instanceof joseErrors.JWTExpired ? 'token expired' : 'token rejected';
      throw authFailed(reason, err);
    }
    const { sub, scopes, iat, exp, epoch = 0, jti = null } = payload;
    const subject = typeof sub === 'string' ? parseSubject(sub) : null;
    if (typeof sub !== 'string' || !subject) throw authFailed('token subject not recognised');
    if (jti !== null && (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH))
      throw authFailed('token id malformed');
    if (jti === null && subject.kind === 'user') throw authFailed('user token without id');
    if (!Array.isArray(scopes) || !scopes.every((s): s is string => typeof s === 'string')) {
      throw authFailed('token scopes must be an array of strings');
    }
    if (typeof iat !== 'number' || typeof exp !== 'number') throw authFailed('token times missing');
    if (iat > this.clock.now() / 1000 + MAX_IAT_SKEW_S) throw authFailed('token issued in the future');
    if (!Number.isSafeInteger(epoch) || (epoch as number) < 0) throw authFailed('token epoch malformed');
    return { sub, scopes, iat, exp, epoch: epoch as number, jti: jti as string | null };
  }
}
