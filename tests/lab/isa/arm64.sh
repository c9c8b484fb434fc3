# arm64: Debian 12's own 6.1 kernel (KVM built in) under QEMU TCG at EL2
# (virtualization=on), VHE. pauth-impdef=on: QEMU's default pointer-auth
# algorithm costs ~8x the boot time under TCG (83 s against 10 s).
DEB_ARCH=arm64
CROSS=aarch64-linux-gnu-
HOST_DEBS="cpio:amd64 kmod:amd64 qemu-system-arm:amd64 qemu-system-common:amd64 qemu-system-data:all
	gcc-aarch64-linux-gnu:amd64 cpp-aarch64-linux-gnu:amd64 gcc-12-aarch64-linux-gnu:amd64
	gcc-12-aarch64-linux-gnu-base:amd64 cpp-12-aarch64-linux-gnu:amd64
	binutils-aarch64-linux-gnu:amd64 libc6-dev-arm64-cross:all libc6-arm64-cross:all
	linux-libc-dev-arm64-cross:all libgcc-12-dev-arm64-cross:all libgcc-s1-arm64-cross:all"
QEMU=qemu-system-aarch64
QEMU_ARGS="-accel tcg -machine virt,virtualization=on,gic-version=3 -cpu max,pauth-impdef=on -m 1024 -smp 2"
KERNEL_DEB=linux-image-6.1.0-50-arm64
KERNEL_IMAGE=boot/vmlinuz-6.1.0-50-arm64
CONSOLE=ttyAMA0
# loglevel=5, softlockup_panic=1: see isa/x86-svm.sh.
CMDLINE="console=ttyAMA0 panic=-1 loglevel=5 softlockup_panic=1"
MODULES="virtio_pci 9pnet_virtio 9p"
SHARE_ARGS="-virtfs local,path=@SHARE@,mount_tag=share,security_model=none"
# The workloads (see isa/x86-svm.sh).
WORKLOADS="
basic --vcpus 2 --mmio 300 --hcall 200 --hlt 20
fixture --vcpus 2 --mmio 10 --hcall 10 --hlt 3
"
LOSS_ARGS="--hcall 15000"
# tests/lab/fixtures.sh: where this kernel's tracepoint formats are kept.
FORMATS_DIR=arm64
