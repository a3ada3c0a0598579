/**
 * The RAUC `compatible` string of every Vigil system bundle and of the box's system.conf (docs/updates.md
 * "Refusals"; the image build reads the same value). A bundle naming anything else is for another board
 * family or architecture and is refused before it is installed.
 */
export const UPDATE_COMPATIBLE = 'vigil-rpi-arm64';
