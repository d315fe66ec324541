// Placeholder: replaced by the conformance runner.
int main() { return 0; }
