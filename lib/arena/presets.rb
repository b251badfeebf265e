# frozen_string_literal: true

# The published comparisons `arena run --preset NAME` re-runs; each preset's file is loaded by
# Presets.load_all.
require_relative "presets/presets"
