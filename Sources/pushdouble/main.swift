// pushdouble CLI entry point.
print("pushdouble")
