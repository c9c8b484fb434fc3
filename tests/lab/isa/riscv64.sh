# riscv64 with the H extension: KVM RISC-V under QEMU's `virt` board (TCG), booted by
# Debian's OpenSBI. Debian 12 has no riscv64 port, and its 6.1 riscv KVM has no
# kvm_exit/kvm_entry tracepoints (added in 6.9), so the kernel is built from Debian's
# linux-source-6.12: tinyconfig + kernel/riscv64.config (build-kernel.sh, cached by the
# fragment's hash); everything is built in. The guest's userland (busybox, trace-cmd,
# the libraries of kvm-exitstat, its C library) is Debian 13's (trixie, the first
# release with a riscv64 port; packages.lock lines with a fifth field), and
# kvm-exitstat is built with Debian 12's cross compiler against that sysroot's glibc
# 2.41 (tools/cross/sysroot.sh). The cross toolchain's own libc6-dev-riscv64-cross is
# not needed: HOST_DEBS has the compiler and what it depends on. QEMU 7.2's device
# tree has only "riscv,isa": the kernel needs RISCV_ISA_FALLBACK (set in the fragment).
DEB_ARCH=riscv64
CROSS=riscv64-linux-gnu-
HOST_DEBS="cpio:amd64 kmod:amd64 qemu-system-misc:amd64 qemu-system-common:amd64 qemu-system-data:all
	opensbi:all gcc-riscv64-linux-gnu:amd64 cpp-riscv64-linux-gnu:amd64
	gcc-12-riscv64-linux-gnu:amd64 gcc-12-riscv64-linux-gnu-base:amd64
	cpp-12-riscv64-linux-gnu:amd64 binutils-riscv64-linux-gnu:amd64
	libc6-riscv64-cross:all gcc-12-cross-base-ports:all
	libgcc-12-dev-riscv64-cross:all libgcc-s1-riscv64-cross:all libatomic1-riscv64-cross:all
	libgomp1-riscv64-cross:all libasan8-riscv64-cross:all
	linux-source-6.12:all flex:amd64 bison:amd64 bc:amd64"
QEMU=qemu-system-riscv64
# rv64 with h=true; the firmware is Debian's opensbi package (1.1), not QEMU's own copy.
QEMU_ARGS="-accel tcg -machine virt -cpu rv64,h=true -m 1024 -smp 2
	-bios /usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin"
KERNEL_DEB=
KERNEL_CONFIG=riscv64
KERNEL_ARCH=riscv
KERNEL_IMAGE=arch/riscv/boot/Image
CONSOLE=ttyS0
# loglevel=5, softlockup_panic=1: see isa/x86-svm.sh (the fragment has the detector).
CMDLINE="console=ttyS0 panic=-1 loglevel=5 softlockup_panic=1"
MODULES=
# No PCI in the kernel: 9p over virtio-mmio.
SHARE_ARGS="-fsdev local,id=share,path=@SHARE@,security_model=none
	-device virtio-9p-device,fsdev=share,mount_tag=share"
TRACE_CMD_ARGS=
# Per vCPU: 300 MMIO stores (+1 done store), 200 ecalls KVM answers itself, 50 ecalls it
# forwards (KVM_EXIT_RISCV_SBI), 20 wfi (each woken by exitgen's timer signal).
# fixture: the run tests/lab/fixtures.sh keeps (tests/fixtures/lab/riscv64/).
WORKLOADS="
basic --vcpus 2 --mmio 300 --hcall 200 --hcall-user 50 --hlt 20
small --vcpus 2 --mmio 20 --hcall 10 --hcall-user 10 --hlt 5
fixture --vcpus 2 --mmio 10 --hcall 10 --hcall-user 5 --hlt 3
"
# A fast workload (ecalls KVM answers) for the small-buffer and -d checks.
LOSS_ARGS="--hcall 30000"
# tests/lab/fixtures.sh: where this kernel's tracepoint formats are kept.
FORMATS_DIR=riscv
