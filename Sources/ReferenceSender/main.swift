// Reference push sender speaking the PushDouble driver protocol.
print("pushdouble-reference-sender: not built yet")
