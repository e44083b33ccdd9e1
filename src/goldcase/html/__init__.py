"""A report as one self-contained HTML page: inline styles, inline SVG charts, no network."""
