# x86-64, AMD SVM without nested paging (kvm_amd npt=0): KVM shadows the
# guest's page tables, so guest page faults reach KVM as `PF excp` exits.
# Everything else as x86-svm.
. "$LAB/isa/x86-svm.sh"
MODULES="kvm-amd:npt=0 virtio_pci 9pnet_virtio 9p"
FORMATS_DIR=
