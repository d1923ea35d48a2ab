/// PushDoubleHPACK module marker.
public enum PushDoubleHPACKModule {}
