// A small convnet: one 5×5 stride-2 convolution with 16 filters, then a softmax layer.
// tfjs's pure-JS conv2d backward pass takes minutes per epoch on one core, so the convolution
// runs as im2col: data.mjs cuts each image into its 5×5 windows once, and a dense layer applied
// to every window (shared weights, like a convolution kernel) computes the 16 feature maps.
import * as tf from '@tensorflow/tfjs';

// Seeded initializers make runs reproducible (rank 0's weights are broadcast to the others).
export function buildModel(geometry, { filters = 16, seed = 1 } = {}) {
  return tf.sequential({
    layers: [
      tf.layers.dense({ inputShape: [geometry.positions, geometry.perPatch], units: filters, activation: 'relu', name: 'conv5x5', kernelInitializer: tf.initializers.glorotUniform({ seed }) }),
      tf.layers.flatten(),
      tf.layers.dense({ units: 10, activation: 'softmax', name: 'classifier', kernelInitializer: tf.initializers.glorotUniform({ seed: seed + 1 }) }),
    ],
  });
}
