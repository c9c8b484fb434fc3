# ppc64 book3s HV: Debian 12's own ppc64el 6.1 kernel (kvm-hv.ko) on QEMU's
# bare-metal POWER9 (powernv9: skiboot, the kernel in hypervisor mode, radix
# MMU). The guest runs under kvm-hv; kvm_hv:kvm_guest_exit/enter fire.
# Sourced by lab.sh: data only (tests/lab/README.md lists every variable).
DEB_ARCH=ppc64el
CROSS=powerpc64le-linux-gnu-
HOST_DEBS="cpio:amd64 kmod:amd64 qemu-system-ppc:amd64 qemu-system-common:amd64 qemu-system-data:all
	gcc-powerpc64le-linux-gnu:amd64 cpp-powerpc64le-linux-gnu:amd64
	gcc-12-powerpc64le-linux-gnu:amd64 gcc-12-powerpc64le-linux-gnu-base:amd64
	cpp-12-powerpc64le-linux-gnu:amd64 binutils-powerpc64le-linux-gnu:amd64
	libc6-dev-ppc64el-cross:all libc6-ppc64el-cross:all linux-libc-dev-ppc64el-cross:all
	libgcc-12-dev-ppc64el-cross:all libgcc-s1-ppc64el-cross:all"
QEMU=qemu-system-ppc64
QEMU_ARGS="-accel tcg -M powernv9 -cpu POWER9 -m 2048 -smp 2"
KERNEL_DEB=linux-image-6.1.0-57-powerpc64le
KERNEL_IMAGE=boot/vmlinux-6.1.0-57-powerpc64le
CONSOLE=hvc0
CMDLINE="console=hvc0 panic=-1 quiet"
MODULES="kvm-hv virtio_pci 9pnet_virtio 9p"
SHARE_ARGS="-virtfs local,path=@SHARE@,mount_tag=share,security_model=none"
# More arguments for the guest's `trace-cmd record -e kvm`: the ISA's own
# trace system, and no compression: Debian's trace-cmd 3.1.6 on ppc64el
# (64 KiB pages) writes zstd-compressed v7 files that neither it (in the
# guest) nor the host's trace-cmd can read ("error reading header": bytes
# 10-17 of the header are overwritten); --compression none and
# --file-version 6 files read back (measured on both kernels).
TRACE_CMD_ARGS="-e kvm_hv --compression none"
WORKLOADS="
basic --vcpus 2 --variant hv --mmio 300 --hcall 200 --hcall-user 100 --priv 50
small --vcpus 2 --variant hv --mmio 20 --hcall 10 --hcall-user 10 --priv 10 --hlt 5
"
# The exit tracepoint (SYSTEM/EVENT), for the plain-ftrace and trace-cmd checks.
EXIT_EVENT=kvm_hv/kvm_guest_exit
# A fast workload (hypercalls the kernel answers) for the small-buffer and -d checks.
LOSS_ARGS="--variant hv --hcall 30000"
