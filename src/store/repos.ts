/** The repositories of one connection (docs/store.md §Files): the main thread's, the writer thread's. */
import type { Clock } from '../core/clock.js';
import type { Database } from './database.js';
import type { LiveSightings } from './live-sightings.js';
import { DeviceKeysRepo } from './device-keys-repo.js';
import { EventJournal } from './event-journal.js';
import { GrantsRepo } from './grants-repo.js';
import { MetaRepo } from './meta-repo.js';
import { ObjectsRepo } from './objects-repo.js';
import { OidOverridesRepo } from './oid-overrides-repo.js';
import { OutputCursors } from './output-cursors.js';
import { RevokedTokensRepo } from './revoked-tokens-repo.js';
import { SessionsRepo } from './sessions-repo.js';
import { SettingsRepo } from './settings-repo.js';

export interface Repos {
  readonly settings: SettingsRepo;
  readonly grants: GrantsRepo;
  readonly objects: ObjectsRepo;
  readonly overrides: OidOverridesRepo;
  readonly events: EventJournal;
  readonly cursors: OutputCursors;
  readonly meta: MetaRepo;
  readonly sessions: SessionsRepo;
  readonly revokedTokens: RevokedTokensRepo;
  readonly deviceKeys: DeviceKeysRepo;
}

/** `live`: the sightings the main thread heard on the bus, shown by its object reads (src/store/live-sightings.ts). */
export function createRepos(db: Database, clock: Clock, live: LiveSightings | null = null): Repos {
  return {
    settings: new SettingsRepo(db, clock),
    grants: new GrantsRepo(db, clock),
    objects: new ObjectsRepo(db, live),
    overrides: new OidOverridesRepo(db, clock),
    events: new EventJournal(db),
    cursors: new OutputCursors(db, clock),
    meta: new MetaRepo(db),
    sessions: new SessionsRepo(db),
    revokedTokens: new RevokedTokensRepo(db, clock),
    deviceKeys: new DeviceKeysRepo(db, clock),
  };
}
