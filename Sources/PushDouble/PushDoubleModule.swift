/// PushDouble module marker.
public enum PushDoubleModule {}
