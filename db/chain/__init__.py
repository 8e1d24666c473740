"""The hash chain and the history formats it vouches for: verification, patches, exports."""
