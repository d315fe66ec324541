// Placeholder: replaced by the example.
int main() { return 0; }
