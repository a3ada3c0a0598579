# Vigil's A/B boot script, compiled to boot.scr on the FAT boot partition (docs/image.md "Slots and boot").
# One script for qemu's u-boot-qemu and the Pi boards' u-boot-rpi: the partition it was loaded from comes
# from U-Boot's distro-boot variables (devtype, devnum, distro_bootpart).
# State: vigil-boot.env beside this script, in `env import -t` text; vigil-boot.bak is the same state,
# always written first. VIGIL_END=1 sorts last and is written last: a file without it is torn, and the
# other copy holds either the state before or the state after that write.
# Each boot takes one try from the first slot in BOOT_ORDER that has tries left, saves that before the
# kernel runs (so a kernel that never reaches userspace, or a watchdog reset, uses up its tries), and
# boots it. No slot with tries left: both get 3 again and the order is tried anew (an appliance that
# stops booting helps nobody). Slot A is partition 2, B partition 3, found by their MBR PARTUUID
# (disk signature 5649474c): a slot image is written byte for byte into either slot, so its label cannot
# tell them apart.
echo "vigil: A/B boot from ${devtype} ${devnum}:${distro_bootpart}"
setenv vigil_fat ${devnum}:${distro_bootpart}
setexpr vigil_buf ${kernel_addr_r} + 0x1f00000
setenv vigil_clear 'setenv BOOT_A_LEFT; setenv BOOT_A_TRIAL; setenv BOOT_B_LEFT; setenv BOOT_B_TRIAL; setenv BOOT_ORDER; setenv VIGIL_END'
setenv vigil_import 'env import -t ${vigil_buf} ${filesize} BOOT_A_LEFT BOOT_A_TRIAL BOOT_B_LEFT BOOT_B_TRIAL BOOT_ORDER VIGIL_END'
run vigil_clear
if load ${devtype} ${vigil_fat} ${vigil_buf} vigil-boot.env; then run vigil_import; fi
if test "${VIGIL_END}" != "1"; then
  echo "vigil: vigil-boot.env is missing or torn; reading vigil-boot.bak"
  run vigil_clear
  if load ${devtype} ${vigil_fat} ${vigil_buf} vigil-boot.bak; then run vigil_import; fi
fi
if test "${VIGIL_END}" != "1"; then
  echo "vigil: no boot state; starting with slot A"
  setenv BOOT_ORDER "A B"
  setenv BOOT_A_LEFT 3
  setenv BOOT_B_LEFT 3
  setenv BOOT_A_TRIAL 0
  setenv BOOT_B_TRIAL 0
fi
setenv vigil_slot
setenv vigil_pick 'for s in ${BOOT_ORDER}; do if test -z "${vigil_slot}"; then if test "${s}" = "A" && test ${BOOT_A_LEFT} -gt 0; then setexpr BOOT_A_LEFT ${BOOT_A_LEFT} - 1; setenv vigil_slot A; setenv vigil_part 2; fi; if test "${s}" = "B" && test ${BOOT_B_LEFT} -gt 0; then setexpr BOOT_B_LEFT ${BOOT_B_LEFT} - 1; setenv vigil_slot B; setenv vigil_part 3; fi; fi; done'
run vigil_pick
if test -z "${vigil_slot}"; then
  echo "vigil: no slot has tries left; both get 3 again"
  setenv BOOT_A_LEFT 3
  setenv BOOT_B_LEFT 3
  run vigil_pick
fi
setenv VIGIL_END 1
env export -t ${vigil_buf} BOOT_A_LEFT BOOT_A_TRIAL BOOT_B_LEFT BOOT_B_TRIAL BOOT_ORDER VIGIL_END
save ${devtype} ${vigil_fat} ${vigil_buf} vigil-boot.bak ${filesize}
save ${devtype} ${vigil_fat} ${vigil_buf} vigil-boot.env ${filesize}
echo "vigil: booting slot ${vigil_slot} (tries left A ${BOOT_A_LEFT}, B ${BOOT_B_LEFT}; order ${BOOT_ORDER})"

# Memory from kernel_addr_r on: the kernel Image (trixie's vmlinuz is an uncompressed 37 MiB Image; with
# its BSS it needs under 64 MiB), the initrd from +64 MiB, and, should a vmlinuz be gzip-compressed,
# booti unpacks it from kernel_comp_addr_r (+128 MiB).
setexpr vigil_initrd ${kernel_addr_r} + 0x4000000
setexpr kernel_comp_addr_r ${kernel_addr_r} + 0x8000000
setenv kernel_comp_size 0x3000000
# The device tree: the Pi firmware's (with config.txt's overlays applied), or qemu's.
setenv vigil_fdt ${fdtcontroladdr}
if test -n "${fdt_addr}"; then setenv vigil_fdt ${fdt_addr}; fi
if test "${board}" = "rpi"; then
  setenv vigil_console "console=ttyS1,115200 console=tty0 cma=64M"
else
  setenv vigil_console "console=ttyAMA0"
fi
setenv bootargs "root=PARTUUID=5649474c-0${vigil_part} rootwait ro rootflags=noatime,errors=remount-ro rauc.slot=${vigil_slot} ${vigil_console} fsck.repair=yes net.ifnames=0"
if load ${devtype} ${devnum}:${vigil_part} ${kernel_addr_r} /boot/vmlinuz; then
  if load ${devtype} ${devnum}:${vigil_part} ${vigil_initrd} /boot/initrd.img; then
    booti ${kernel_addr_r} ${vigil_initrd}:${filesize} ${vigil_fdt}
  fi
fi
echo "vigil: slot ${vigil_slot} did not start; its try is spent, resetting"
reset
