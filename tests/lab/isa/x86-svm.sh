# x86-64, AMD SVM with nested paging (NPT): Debian 12's own 6.1 kernel under
# QEMU TCG. `-cpu max` gives SVM with NPT but no NRIPS, so KVM emulates the
# instruction of each MMIO write and hlt to skip it (kvm_emulate_insn fires).
# Sourced by lab.sh: data only (tests/lab/README.md lists every variable).
DEB_ARCH=amd64
CROSS=
HOST_DEBS="cpio:amd64 kmod:amd64 qemu-system-x86:amd64 qemu-system-common:amd64 qemu-system-data:all
	seabios:all ipxe-qemu:all"
QEMU=qemu-system-x86_64
# thread=single: one host thread runs both vCPUs in turn. With a thread per
# vCPU (QEMU's default here) the guest froze in 2 CI runs of 2026-12-01/02,
# once with no soft-lockup report at all (QEMU itself stuck, 400 s after the
# first VM was created); 2 guest CPUs are kept: the loss checks need the
# recorder on another CPU than the workload (-smp 1 failed one of them).
QEMU_ARGS="-accel tcg,thread=single -cpu max -m 1024 -smp 2"
KERNEL_DEB=linux-image-6.1.0-50-amd64
KERNEL_IMAGE=boot/vmlinuz-6.1.0-50-amd64
CONSOLE=ttyS0
# loglevel=5: warnings and the register dumps and call traces that go with them
# (KERN_DEFAULT) reach the console; softlockup_panic=1: a soft lockup ends the
# boot at once (panic=-1, -no-reboot) with its trace in console.log.
CMDLINE="console=ttyS0 panic=-1 loglevel=5 softlockup_panic=1"
# Loaded in this order, each after the modules it needs (modules.dep);
# NAME:PARAM=VALUE,... passes parameters.
MODULES="kvm-amd virtio_pci 9pnet_virtio 9p"
# How the results directory reaches the guest (@SHARE@: its host path).
SHARE_ARGS="-virtfs local,path=@SHARE@,mount_tag=share,security_model=none"
# The workloads, one a line: NAME exitgen-arguments. Each one is recorded,
# reported and checked against isa/<ISA>.expect; the first one is also run
# under top -l and top --once, the first one and "fixture" under trace-cmd
# record (fixture: small, its files become tests/fixtures/lab/<ISA>/).
WORKLOADS="
basic --vcpus 2 --io 1000 --mmio 300 --hlt 50
kernel --vcpus 2 --cpuid 300 --msr 200 --pf 100 --io 10
fixture --vcpus 2 --io 20 --mmio 10 --hlt 3 --cpuid 5 --msr 5 --pf 4
"
# A fast workload (exits the kernel answers) for the small-buffer and -d checks.
LOSS_ARGS="--cpuid 15000"
# tests/lab/fixtures.sh: where this kernel's tracepoint formats are kept.
FORMATS_DIR=x86_svm_6.1
