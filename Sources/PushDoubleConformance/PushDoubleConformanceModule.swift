/// PushDoubleConformance module marker.
public enum PushDoubleConformanceModule {}
