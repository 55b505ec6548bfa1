// The declaration is all: LLVMFuzzerRunDriver comes from libFuzzer at link time.
