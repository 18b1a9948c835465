"""DeSyR teacher plugin: a physics-informed neural network trained with DeepXDE."""
