# ppc64 book3s PR, the setting of the 2010 KVM-PPC exit-timing reports: the
# guest runs in problem state and the host emulates its privileged
# instructions. Debian ships no kvm-pr.ko (its NO_HZ_FULL selects
# CONTEXT_TRACKING_USER, which PR excludes), so the kernel is built from
# Debian's linux-source-6.12: tinyconfig + kernel/ppc64-pr.config
# (build-kernel.sh, cached by the fragment's hash). PR on POWER9 needs the
# hash MMU: disable_radix. Under -M pseries QEMU itself would answer `sc 1`,
# so powernv9 again. kvm_pr:kvm_exit fires, kvm_book3s_reenter ends each
# in-kernel handling.
DEB_ARCH=ppc64el
CROSS=powerpc64le-linux-gnu-
HOST_DEBS="cpio:amd64 kmod:amd64 qemu-system-ppc:amd64 qemu-system-common:amd64 qemu-system-data:all
	gcc-powerpc64le-linux-gnu:amd64 cpp-powerpc64le-linux-gnu:amd64
	gcc-12-powerpc64le-linux-gnu:amd64 gcc-12-powerpc64le-linux-gnu-base:amd64
	cpp-12-powerpc64le-linux-gnu:amd64 binutils-powerpc64le-linux-gnu:amd64
	libc6-dev-ppc64el-cross:all libc6-ppc64el-cross:all linux-libc-dev-ppc64el-cross:all
	libgcc-12-dev-ppc64el-cross:all libgcc-s1-ppc64el-cross:all
	linux-source-6.12:all flex:amd64 bison:amd64 bc:amd64"
QEMU=qemu-system-ppc64
# 3 CPUs for 2-vCPU workloads: here a PR vCPU thread is never preempted on
# its CPU (measured 2026-12-01: with exitgen's 2 vCPUs on a 2-CPU guest every
# other task stalled for the whole 40 s run, and `top --once -d 1` returned
# after 41 s with 1 M events lost); the third CPU is the recorder's.
QEMU_ARGS="-accel tcg -M powernv9 -cpu POWER9 -m 2048 -smp 3"
# A kernel built from source instead of KERNEL_DEB: build-kernel.sh NAME
# ARCH CROSS IMAGE with NAME = KERNEL_CONFIG (kernel/NAME.config).
KERNEL_DEB=
KERNEL_CONFIG=ppc64-pr
KERNEL_ARCH=powerpc
KERNEL_IMAGE=vmlinux
CONSOLE=hvc0
CMDLINE="console=hvc0 panic=-1 quiet disable_radix"
MODULES=
SHARE_ARGS="-virtfs local,path=@SHARE@,mount_tag=share,security_model=none"
# More arguments for the guest's `trace-cmd record -e kvm`: the ISA's own
# trace system, and no compression: Debian's trace-cmd 3.1.6 on ppc64el
# (64 KiB pages) writes zstd-compressed v7 files that neither it (in the
# guest) nor the host's trace-cmd can read ("error reading header": bytes
# 10-17 of the header are overwritten); --compression none and
# --file-version 6 files read back (measured on both kernels).
TRACE_CMD_ARGS="-e kvm_pr --compression none"
WORKLOADS="
basic --vcpus 2 --variant pr --mmio 300 --hcall 200 --hcall-user 100 --priv 50 --pvcall 50
small --vcpus 2 --variant pr --mmio 20 --hcall 10 --hcall-user 10 --priv 10 --pvcall 10 --hlt 5
"
# The exit tracepoint (SYSTEM/EVENT), for the plain-ftrace and trace-cmd checks.
EXIT_EVENT=kvm_pr/kvm_exit
# A fast workload (hypercalls the kernel answers) for the small-buffer and -d checks.
LOSS_ARGS="--variant pr --hcall 30000"
