"""Zone catalogue, geometry in metres, vectorised evaluation, and ballast basemaps."""
