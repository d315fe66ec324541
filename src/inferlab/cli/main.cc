// Placeholder: replaced by the CLI implementation.
int main() { return 0; }
