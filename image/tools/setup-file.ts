/**
 * The vigil-setup.txt that image-check and update-check put on a freshly flashed card (docs/first-boot.md):
 * admin password, host name, time zone, a static address on qemu's user network (the guest is 10.0.2.15,
 * the gateway 10.0.2.2, DNS 10.0.2.3) and the SSH key the check logs in with.
 */
export function setupFile(password: string, sshPublicKey: string): string {
  return [
    '# written by ./build.sh image-check / update-check',
    'instance_name = image-check',
    `admin_password = ${password}`,
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
