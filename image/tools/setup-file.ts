/**
 * The vigil-setup.txt that image-check and update-check put on a freshly flashed card (docs/first-boot.md):
 * host name, time zone, a static address on qemu's user network (the guest is 10.0.2.15, the gateway
 * 10.0.2.2, DNS 10.0.2.3) and the SSH key the check logs in with; and either the admin password (a new
 * box) or the passphrase of the backup placed beside it (a restored box, which brings its own accounts and
 * name: `admin_password` and `instance_name` are refused beside `restore_passphrase`).
 */
export type SetupIdentity = { readonly adminPassword: string } | { readonly restorePassphrase: string };

export function setupFile(identity: SetupIdentity, sshPublicKey: string): string {
  const who =
    'adminPassword' in identity
      ? ['instance_name = image-check', `admin_password = ${identity.adminPassword}`]
      : [`restore_passphrase = ${identity.restorePassphrase}`];
  return [
    '# written by ./build.sh image-check / update-check',
    ...who,
    'hostname = vigil-check',
    'timezone = Europe/Berlin',
    'network = static',
    'address = 10.0.2.15/24',
    'gateway = 10.0.2.2',
    'dns = 10.0.2.3',
    'ntp = 10.0.2.2',
    `ssh_authorized_key = ${sshPublicKey}`,
    '',
  ].join('\n');
}
